extern __device__ int f(int x);
extern __device__ int g(int x);
__global__ void k1(int*p){ p[0]=f(p[1])+g(p[2]); }
__global__ void k2(int*p){ p[2]=g(p[3])+1; }
