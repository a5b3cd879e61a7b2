#include <cstdio>
__device__ __noinline__ int g(int x) { printf("g %d\n", x); return x + 1; }
