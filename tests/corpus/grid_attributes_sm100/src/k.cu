#include <cstdio>
__device__ void f1(float*, float*); __device__ void f2(float*, float); __device__ void fb(float*); __device__ void fp(float*);
__global__ void kA(float* p, float* q){ f1(p, q); }
__global__ void kB(float* p, float* q){ float r; asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory"); q[0]=r; f2(q, 1.f); }
__global__ void kC(float* p, float* q){ f1(p, q); f2(q, 2.f); }
__global__ void kD(float* p, float* q){ fb(p); f1(p, q); }
__global__ void kE(float* p, float* q){ fp(p); f1(p, q); fb(q); }
__global__ void kF(float* p){ fp(p); }
__global__ void kG(float* p, float* q){ float r; asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory"); q[0]=r; fb(p); }
__global__ void kH(float* p, float* q){ fb(p); f2(q, 2.f); }
