__device__ float offset(float v) { return v + 1.0f; }
