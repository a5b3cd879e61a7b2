// Host+device translation unit: kernel plus host launch code; the kernel calls
// accumulate() from util.cu and reads util.cu's device variable.
#include <cstdio>
extern __device__ int accumulate(const int *p, int n);
extern __device__ int g_calls;

__global__ void k_sum(const int *in, int *out, int n)
{
  out[blockIdx.x] = accumulate(in + blockIdx.x * n, n) + g_calls;
}

int run(const int *d_in, int *d_out, int n)
{
  k_sum<<<4, 1>>>(d_in, d_out, n);
  return (int)cudaDeviceSynchronize();
}
