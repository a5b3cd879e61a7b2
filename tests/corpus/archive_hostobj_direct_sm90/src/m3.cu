// Archive member m3.o; uses m1_data from m1.o
extern __device__ int m1_data;
__device__ int m3_data = 300;
__device__ __noinline__ int m3_func(int x) { return x + m3_data + m1_data; }
