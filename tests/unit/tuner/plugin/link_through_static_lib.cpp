// Links like the cctune executable: main -> a static library -> cctune_tuner_plugin. Nothing
// here references ncclTunerPlugin_v5; the ctest checks the executable still exports it.
#ifdef CCTUNE_LINK_CHECK_LIBRARY
int cctune_link_check_library_function() { return 0; }
#else
int cctune_link_check_library_function();
int main() { return cctune_link_check_library_function(); }
#endif
