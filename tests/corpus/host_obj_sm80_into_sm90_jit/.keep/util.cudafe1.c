# 1 "src/util.cu"
