struct St { unsigned d, v[5]; };
__global__ void k(St *st, int n, unsigned *hits) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  St s = st[id];
  unsigned c = 0;
  for (int i = 0; i < n; ++i) {
    unsigned t = s.v[0] ^ (s.v[0] >> 2);
    s.v[0] = s.v[1]; s.v[1] = s.v[2]; s.v[2] = s.v[3]; s.v[3] = s.v[4];
    s.v[4] = (s.v[4] ^ (s.v[4] << 4)) ^ (t ^ (t << 1));
    s.d += 362437;
    if (s.v[4] + s.d > 0x80000000u) ++c;
  }
  hits[id] += c;
  st[id] = s;
}
