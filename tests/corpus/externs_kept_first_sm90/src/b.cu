#include <cstdio>
__device__ void callee(void* p);
__global__ void k(void* p) { printf("x\n"); callee(p); }
__global__ void k0() {}
