__global__ void bigShared(float *o) { __shared__ float s[60000]; s[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = s[threadIdx.x ^ 1]; }
