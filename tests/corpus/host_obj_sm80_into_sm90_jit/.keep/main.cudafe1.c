# 1 "src/main.cu"
