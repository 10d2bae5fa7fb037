#include "core/point_space.hpp"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/sizes.hpp"

namespace cctune {
namespace {

std::uint64_t measured_size(Collective c, DType t, std::uint64_t requested, int nranks) {
  if (nranks <= 0) return requested;
  return collective_bytes(c, round_to_granule(requested, request_granule(c, t, nranks)), t, nranks).size_bytes;
}

// The implementations collective `c` is measured with: each named one where it has two.
std::vector<std::optional<P2pImpl>> impls_for(const PointSpace& space, Collective c) {
  if (!has_two_impls(c) || space.impls.empty()) return {std::nullopt};
  return {space.impls.begin(), space.impls.end()};
}

// Every (op, root) of collective `c` with data type `t` and implementation `impl`, in run order.
void for_each_op_and_root(const PointSpace& space, Collective c, std::optional<P2pImpl> impl, DType t, int nranks,
                          const std::function<void(const PointSeries&)>& visit) {
  std::vector<ReduceOp> ops = space.ops;
  if (!is_reduction(c) && !ops.empty()) ops.resize(1);
  std::vector<int> roots{is_rooted(c) ? space.root : 0};
  if (is_rooted(c) && space.all_roots) {
    roots.clear();
    for (int r = 0; r < std::max(nranks, 1); ++r) roots.push_back(r);
  }
  for (ReduceOp op : ops)
    for (int root : roots) visit({c, impl, t, op, root});
}

}  // namespace

void for_each_series(const PointSpace& space, int nranks,
                     const std::function<void(const PointSeries&, const std::vector<std::uint64_t>&)>& visit) {
  if (const auto* step = std::get_if<PointStep>(&space.points)) {
    const JobPoint& l = step->largest;
    for_each_op_and_root(space, l.collective, std::nullopt, l.dtype, nranks, [&](const PointSeries& s) { visit(s, {l.size_bytes}); });
    return;
  }
  if (const auto* shapes = std::get_if<PointShapes>(&space.points)) {
    for (const JobPoint& shape : shapes->shapes) {
      // A shape's size_bytes is already what the sweep calls the size (NCCL's nBytes): raised
      // to the granule as any size, never scaled by the rank count.
      const std::vector<std::uint64_t> size{measured_size(shape.collective, shape.dtype, shape.size_bytes, nranks)};
      for (const std::optional<P2pImpl>& impl : impls_for(space, shape.collective))
        for_each_op_and_root(space, shape.collective, impl, shape.dtype, nranks, [&](const PointSeries& s) { visit(s, size); });
    }
    return;
  }
  const PointGrid& grid = std::get<PointGrid>(space.points);
  for (Collective c : grid.collectives) {
    // Worked out once per data type; sizes that round to one are measured once (`-b 1 -e 64
    // -f 1.01` asked for 63 sizes of which 15 remain in float32: review N14).
    std::map<DType, std::vector<std::uint64_t>> sizes;
    for (DType t : grid.dtypes) {
      std::unordered_set<std::uint64_t> seen;
      for (std::uint64_t requested : grid.sizes)
        if (const std::uint64_t size = measured_size(c, t, requested, nranks); seen.insert(size).second) sizes[t].push_back(size);
    }
    for (const std::optional<P2pImpl>& impl : impls_for(space, c))
      for (DType t : grid.dtypes) for_each_op_and_root(space, c, impl, t, nranks, [&](const PointSeries& s) { visit(s, sizes.at(t)); });
  }
}

double points_per_config(const PointSpace& space, int nranks) {
  double points = 0;
  const auto placements = static_cast<double>(space.placements.size());
  for_each_series(space, nranks, [&](const PointSeries&, const std::vector<std::uint64_t>& sizes) {
    points += static_cast<double>(sizes.size()) * placements;
  });
  return points;
}

PointSpace only_collective(const PointSpace& space, Collective c) {
  PointSpace one = space;
  if (auto* shapes = std::get_if<PointShapes>(&one.points))
    std::erase_if(shapes->shapes, [c](const JobPoint& p) { return p.collective != c; });
  else if (auto* grid = std::get_if<PointGrid>(&one.points))
    grid->collectives = {c};
  return one;
}

namespace {

// One field of what the space measures: the grid's list of it, the step's largest call's, or
// the shapes' values in first-use order.
template <class T>
std::vector<T> listed(const PointSpace& space, std::vector<T> PointGrid::*list, T JobPoint::*field) {
  if (const auto* grid = std::get_if<PointGrid>(&space.points)) return (*grid).*list;
  if (const auto* step = std::get_if<PointStep>(&space.points)) return {step->largest.*field};
  std::vector<T> out;
  for (const JobPoint& s : std::get<PointShapes>(space.points).shapes)
    if (std::find(out.begin(), out.end(), s.*field) == out.end()) out.push_back(s.*field);
  return out;
}

}  // namespace

std::vector<Collective> collectives_of(const PointSpace& space) { return listed(space, &PointGrid::collectives, &JobPoint::collective); }

std::vector<DType> dtypes_of(const PointSpace& space) { return listed(space, &PointGrid::dtypes, &JobPoint::dtype); }

std::vector<std::uint64_t> sizes_of(const PointSpace& space) {
  std::vector<std::uint64_t> out = listed(space, &PointGrid::sizes, &JobPoint::size_bytes);
  if (std::holds_alternative<PointShapes>(space.points)) std::sort(out.begin(), out.end());  // shapes': rising
  return out;
}

bool has_rooted(const PointSpace& space) {
  const std::vector<Collective> cs = collectives_of(space);
  return std::any_of(cs.begin(), cs.end(), is_rooted);
}

std::vector<P2pImpl> impls_of(P2pImplChoice choice) {
  switch (choice) {
    case P2pImplChoice::Native: return {P2pImpl::Native};
    case P2pImplChoice::Grouped: return {P2pImpl::Grouped};
    case P2pImplChoice::Both: return {P2pImpl::Native, P2pImpl::Grouped};
  }
  return {};
}

}  // namespace cctune
