// Compiled with nvcc -ewp (extensible whole program).
__device__ int hits;
__global__ void count(const int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i] > 0) atomicAdd(&hits, 1);
}
