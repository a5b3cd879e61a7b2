#include <cstdio>
__device__ __noinline__ int deadp(int x){ printf("%d\n", x); return x; }
__global__ void k3(int* o){ o[0]=o[1]+1; }
__global__ void k4(int* o){ o[0]=deadp(o[1]); }
