// Compound growth: pow() brings libdevice's local helper with its bank-2
// doubles into this object.
__global__ void growth(double* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = pow(v[i], 1.07);
}
