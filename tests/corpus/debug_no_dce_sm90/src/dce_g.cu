// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
#include <cstdint>
__device__ __noinline__ void fM(uint64_t *b) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(b))); }
__device__ __noinline__ void fB(unsigned x){ asm volatile("bar.sync %0;"::"r"(x)); }
__global__ void k1(int *p) { __shared__ uint64_t b[4]; fM(b); p[0]=b[0]; }
__global__ void k2(int *p) { p[0]=3; }
