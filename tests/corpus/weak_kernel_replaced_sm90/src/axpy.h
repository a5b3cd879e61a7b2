// A template kernel both objects instantiate: a weak definition in each.
template <typename T> __global__ void axpy(T* y, const T* x, T a) {
  y[threadIdx.x] += a * x[threadIdx.x];
}
