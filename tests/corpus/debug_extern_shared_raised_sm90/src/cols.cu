__device__ double column_sum(int i);
__global__ void cols(double *o) {
  extern __shared__ int early[];
  early[threadIdx.x] = 1;
  o[0] = column_sum(threadIdx.x) + early[3];
}
