// -G code with an extern shared array beside a static one.
__global__ void stage(float* p) {
  extern __shared__ float spill[];
  __shared__ float tile[64];
  tile[threadIdx.x] = p[2];
  spill[threadIdx.x] = p[0];
  __syncthreads();
  p[1] = spill[0] + tile[3];
}
