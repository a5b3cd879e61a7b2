// A two-file separable-compilation program for tests/toolkit.rs: main.cu
// launches a kernel that calls a device function defined in scale.cu.
#include <cstdio>
extern __device__ float scale(float x);
__global__ void k_scale(float *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale(p[i]);
}
int main()
{
  float *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  k_scale<<<1, 64>>>(d, 64);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  cudaFree(d);
  return 0;
}
