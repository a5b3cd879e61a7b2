// Built for the sm_100 family (sm_100f): its .nv.compat has an attribute
// 0x07 that the sm_103 object lacks.
__device__ __noinline__ float blend(const float* p, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += p[i] * p[(i * 7) % n];
  return s;
}
