// The same local helper again, in a second object, called by two kernels.
__global__ void decay(double* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = pow(v[i], 0.93);
}
__global__ void halflife(double* v, double k) { v[threadIdx.x] = pow(k, v[threadIdx.x]); }
