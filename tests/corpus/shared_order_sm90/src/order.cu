// Shared variables of equal alignment and size: nvlink's (unstable) merge
// sort decides where each lands. k_equal has five equal arrays; k_mixed
// mixes sizes and alignments; k_a and k_b share four equal file-scope
// arrays and each has one of its own.
__shared__ float g0[8], g1[8], g2[8], g3[8];
__shared__ float ga[16], gb[16];

__global__ void k_equal(unsigned *p)
{
  __shared__ unsigned v0[16], v1[16], v2[16], v3[16], v4[16];
  unsigned t = threadIdx.x;
  v0[t] = p[0]; v1[t] = p[1]; v2[t] = p[2]; v3[t] = p[3]; v4[t] = p[4];
  __syncthreads();
  p[8] = v0[t ^ 1] + v1[t ^ 2] + v2[t ^ 3] + v3[t ^ 4] + v4[t ^ 5];
}

__global__ void k_mixed(double *p)
{
  __shared__ double d0[4];
  __shared__ char c0[12];
  __shared__ float f0[3], f1[3];
  __shared__ double d1[4];
  unsigned t = threadIdx.x & 3;
  d0[t] = p[0]; c0[t] = (char)p[1]; f0[t % 3] = (float)p[2]; f1[t % 3] = (float)p[3]; d1[t] = p[4];
  __syncthreads();
  p[8] = d0[t ^ 1] + c0[t ^ 2] + f0[(t + 1) % 3] + f1[(t + 2) % 3] + d1[t ^ 3];
}

__global__ void k_a(float *p)
{
  unsigned t = threadIdx.x & 7;
  g0[t] = p[0]; g1[t] = p[1]; g2[t] = p[2]; g3[t] = p[3]; ga[t] = p[4];
  __syncthreads();
  p[8] = g0[t ^ 1] + g1[t ^ 2] + g2[t ^ 3] + g3[t ^ 4] + ga[t ^ 5];
}

__global__ void k_b(float *p)
{
  unsigned t = threadIdx.x & 7;
  g3[t] = p[0]; g2[t] = p[1]; g1[t] = p[2]; g0[t] = p[3]; gb[t] = p[4];
  __syncthreads();
  p[8] = g3[t ^ 1] + g2[t ^ 2] + g1[t ^ 3] + g0[t ^ 4] + gb[t ^ 5];
}
