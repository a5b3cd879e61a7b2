extern __shared__ __align__(16) double late[];
__device__ __noinline__ double column_sum(int i) {
  __shared__ double bias;
  bias = 1.0;
  return late[i] + bias;
}
