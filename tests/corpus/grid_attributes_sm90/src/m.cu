#include <cstdio>
__device__ __noinline__ void f1(float* p, float* q){ float r; asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory"); q[0]=r; }
__device__ __noinline__ void fb(float* p){ p[threadIdx.x]=1; __syncthreads(); p[0]+=p[1]; }
__device__ __noinline__ void f2(float* p, float v){ asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory"); }
__device__ __noinline__ void fp(float* p){ printf("%f\n", p[0]); }
