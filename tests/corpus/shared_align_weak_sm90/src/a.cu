__global__ void k(const float* in, float* out) {
  __shared__ float a[256], b[256];
  a[threadIdx.x] = in[threadIdx.x];
  b[threadIdx.x] = in[threadIdx.x + 256];
  __syncthreads();
  out[threadIdx.x] = a[255 - threadIdx.x] + b[threadIdx.x];
}
template <int N>
__global__ void t(const float4* in, float* out) {
  __shared__ float4 buf[N];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[N - 1 - threadIdx.x].x;
}
template __global__ void t<128>(const float4*, float*);
