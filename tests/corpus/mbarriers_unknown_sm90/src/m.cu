#include <cstdint>
__device__ __forceinline__ void mbinit(uint64_t* b, int n){ unsigned a = (unsigned)__cvta_generic_to_shared(b); asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(a), "r"(n) : "memory"); }
__device__ __noinline__ void m1(int* p){ __shared__ uint64_t b; mbinit(&b, p[2]); p[0]=1; }
__device__ __noinline__ void m2(int* p){ __shared__ uint64_t b2[2]; mbinit(&b2[0], p[2]); mbinit(&b2[1], p[3]); p[0]=2; }
__global__ void k(int* p){ m1(p); m2(p); }
__global__ void k2(int* p){ m2(p); }
