// Two register-hungry functions; ptxas lists heavy2 first in the symbol table.
__device__ __noinline__ float heavy1(const float* p) {
  float a[64];
#pragma unroll
  for (int i = 0; i < 64; i++) a[i] = p[i * 7] * p[i + 3];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; i++) s += a[i] * a[63 - i];
  return s;
}
__device__ __noinline__ float heavy2(const float* p) {
  float a[64];
#pragma unroll
  for (int i = 0; i < 64; i++) a[i] = p[i * 5] + p[i + 9];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; i++) s += a[i] * a[63 - i];
  return s;
}
