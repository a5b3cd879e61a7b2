// Archive member m1.o
__device__ int m1_data = 100;
__device__ __noinline__ int m1_func(int x) { return x + m1_data; }
