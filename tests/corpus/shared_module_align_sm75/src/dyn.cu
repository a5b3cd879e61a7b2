// A kernel using only an extern shared array, one with its own shared int,
// and one with no shared memory at all.
extern __shared__ __align__(16) unsigned char pool[];
__global__ void only_pool(float* o) {
  double* d = reinterpret_cast<double*>(pool);
  d[threadIdx.x] = threadIdx.x;
  __syncthreads();
  o[threadIdx.x] = d[31 - threadIdx.x];
}
__global__ void own_flag(float* o) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = o[0];
  __syncthreads();
  o[threadIdx.x] = flag;
}
__global__ void no_shared(float* o) { o[threadIdx.x] = 1.f; }
