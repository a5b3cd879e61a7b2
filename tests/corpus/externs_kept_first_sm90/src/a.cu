#include <cstdlib>
__device__ void callee(void* p) { free(p); }
