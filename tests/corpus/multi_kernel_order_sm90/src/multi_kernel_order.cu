// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
#include <cstdio>
#include <cstdint>
__device__ __noinline__ void d16(unsigned id) { asm volatile("bar.sync %0;" :: "r"(id)); printf("x\n"); }
__device__ __noinline__ void mb1(uint64_t *b) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(b))); }
__device__ __noinline__ void fE(int x){ printf("%d\n",x); }
__device__ __noinline__ void fB(unsigned x){ asm volatile("bar.sync %0;"::"r"(x)); }
__global__ void k1(int *p) { __shared__ uint64_t b[4]; mb1(b); fB(p[0]); fE(p[1]); p[0]=b[0]; }
__global__ void k9(int *p) { fE(1); }
