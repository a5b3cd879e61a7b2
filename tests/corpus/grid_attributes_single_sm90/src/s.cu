#include <cstdio>
__device__ void f1(float*, float*); __device__ void f2(float*, float); __device__ void fb(float*); __device__ void fp(float*);
__global__ void kS(float* p, float* q){ fb(p); f2(q, 2.f); fp(p); }
