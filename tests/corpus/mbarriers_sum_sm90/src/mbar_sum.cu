// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
#include <cstdint>
__device__ __noinline__ void mb1(uint64_t *b) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(b))); }
__device__ __noinline__ void a(uint64_t *b) { mb1(b); }
__device__ __noinline__ void bb(uint64_t *b) { mb1(b+1); }
__device__ __noinline__ void mb2(uint64_t *b) { asm volatile("mbarrier.init.shared.b64 [%0], 2;" :: "r"((unsigned)__cvta_generic_to_shared(b))); asm volatile("mbarrier.init.shared.b64 [%0], 2;" :: "r"((unsigned)__cvta_generic_to_shared(b+1)));}
__device__ __noinline__ void c2(uint64_t *b) { mb2(b); mb1(b); }
__global__ void k1(int *p) { __shared__ uint64_t b[4]; asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(b))); mb1(b+1); p[0]=b[0]; }
__global__ void k2(int *p) { __shared__ uint64_t b[4]; a(b); bb(b); p[0]=b[0]; }
__global__ void k3(int *p) { __shared__ uint64_t b[4]; mb1(b); mb1(b+1); p[0]=b[0]; }
__global__ void k4(int *p) { __shared__ uint64_t b[4]; c2(b); p[0]=b[0]; }
__global__ void k5(int *p) { __shared__ uint64_t b[4]; c2(b); mb2(b); p[0]=b[0]; }
