#pragma once
// Placement of the profiler half's per-call code. Every call a job makes runs the handlers of
// its group and call API events, between NCCL's enqueue and the CUDA launch, whose code and
// data push the plugin's out of the core's near caches: what a call costs there is mostly the
// cache lines and pages it touches, not its instructions (docs/PERFORMANCE.md). CCTUNE_HOT code
// goes to .text.hot, one small contiguous run; CCTUNE_COLD code (first calls of a shape,
// groups of two or more, writes) out of its way.
#if defined(__GNUC__)
#define CCTUNE_HOT __attribute__((hot))
#define CCTUNE_COLD __attribute__((cold, noinline))
#else
#define CCTUNE_HOT
#define CCTUNE_COLD
#endif
