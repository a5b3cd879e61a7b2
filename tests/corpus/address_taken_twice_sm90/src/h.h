__device__ int g(int x);
__device__ int h(int x);
typedef int (*F)(int);
