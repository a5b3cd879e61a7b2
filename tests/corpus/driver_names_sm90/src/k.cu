// Device-side CUDA API calls that nvlink leaves undefined for the driver
// (its fixed list of names), beside the C library ones.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" __device__ void cudaResizeSharedMemory(int);
extern "C" __device__ void __profile(int);
extern "C" __device__ void cnpGetDevice(int);
__global__ void k_graph(cudaGraphConditionalHandle h, cudaGraphDeviceNode_t n, int x)
{
  cudaGraphSetConditional(h, 1);
  cudaGraphKernelNodeSetEnabled(n, true);
  cudaResizeSharedMemory(x);
  __profile(x);
  cnpGetDevice(x);
  printf("%d\n", x);
}
