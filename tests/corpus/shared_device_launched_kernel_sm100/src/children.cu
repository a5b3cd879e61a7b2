// Two kernels only device code launches: one with an extern shared array,
// one with a module-scope shared array.
extern __shared__ int dynamic_buf[];
__shared__ int module_buf[64];
__global__ void fill_dynamic(int *p) {
  dynamic_buf[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = dynamic_buf[63 - threadIdx.x];
}
__global__ void fill_module(int *p) {
  module_buf[threadIdx.x] = p[threadIdx.x] * 2;
  __syncthreads();
  p[threadIdx.x] = module_buf[63 - threadIdx.x];
}
