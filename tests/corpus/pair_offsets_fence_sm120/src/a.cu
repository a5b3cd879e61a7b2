// __threadfence() makes ptxas put four `@!PT LDS RZ, [RZ]` and a
// MEMBAR.ALL.CTA before MEMBAR.SC.GPU, which nvlink's sm_100+ finalizer
// deletes: the code after them moves up by 0x50 bytes.
// A 128-bit load partly used: EIATTR_UNUSED_LOAD_BYTE_OFFSET (offset,
// byte mask of the bytes used).
__global__ void unused_load(const int4* in, int* out) {
  __threadfence();
  int4 v = in[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.w;  // v.z unused: mask 0xf0ff
}
// A 16-bit atomicCAS, emulated by ptxas: EIATTR_ATOM16_EMUL_INSTR_REG_MAP
// (offset, register) pairs.
__global__ void cas16(unsigned short* p, int* q) {
  __threadfence();
  q[threadIdx.x] = atomicCAS(p + threadIdx.x, (unsigned short)1, (unsigned short)2);
}
// A 16-bit atomicCAS on shared memory, and a 64-bit load half used.
__global__ void cas16_shared(const short4* in, int* q) {
  __shared__ unsigned short s[64];
  __threadfence();
  short4 v = in[threadIdx.x];
  s[threadIdx.x] = v.x;
  __syncthreads();
  q[threadIdx.x] = atomicCAS(s + (threadIdx.x ^ 1), (unsigned short)1, (unsigned short)2) + v.w;
}
