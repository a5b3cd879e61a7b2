__device__ float g_scale = 1.0f;
