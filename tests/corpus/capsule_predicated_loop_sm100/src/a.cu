__constant__ double c_pad = 1.0;
__constant__ float c_soft = 0.00125f;
__shared__ float4 sh[256];
__global__ void k(float4 *newPos, const float4 *oldPos, int numTiles) {
  float4 p = oldPos[blockIdx.x * blockDim.x + threadIdx.x];
  float3 acc = {0.f, 0.f, 0.f};
  for (int tile = 0; tile < numTiles; tile++) {
    sh[threadIdx.x] = oldPos[tile * blockDim.x + threadIdx.x];
    __syncthreads();
#pragma unroll 32
    for (unsigned int c = 0; c < blockDim.x; c++) {
      float4 q = sh[c];
      float rx = q.x - p.x, ry = q.y - p.y, rz = q.z - p.z;
      float inv = rsqrtf(rx * rx + ry * ry + rz * rz + c_soft);
      float s = q.w * inv * inv * inv;
      acc.x += rx * s; acc.y += ry * s; acc.z += rz * s;
    }
    __syncthreads();
  }
  newPos[blockIdx.x * blockDim.x + threadIdx.x] = make_float4(acc.x, acc.y, acc.z, p.w);
}
