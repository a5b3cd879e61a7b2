__device__ float g_scale = 2.0f;
