/* Loads a real libnccl, lets it read NCCL_CONF_FILE (ncclGetUniqueId runs NCCL's initEnv;
 * no GPU needed) and prints the variables named on the command line as NCCL left them.
 * Usage: nccl_conf_probe LIBNCCL VAR...  (run with NCCL_CONF_FILE set) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  char internal[128];
} UniqueId;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("dlopen-failed %s\n", dlerror());
    return 3;
  }
  int (*get_version)(int*) = (int (*)(int*))dlsym(lib, "ncclGetVersion");
  int (*get_unique_id)(UniqueId*) = (int (*)(UniqueId*))dlsym(lib, "ncclGetUniqueId");
  if (!get_version || !get_unique_id) return 4;
  int version = 0;
  get_version(&version);
  UniqueId id;
  printf("nccl_version=%d\nunique_id_rc=%d\n", version, get_unique_id(&id));
  for (int i = 2; i < argc; ++i) printf("%s=%s\n", argv[i], getenv(argv[i]) ? getenv(argv[i]) : "<unset>");
  return 0;
}
