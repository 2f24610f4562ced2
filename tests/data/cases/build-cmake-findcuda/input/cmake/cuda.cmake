# Defaults for the CUDA build
if(NOT CUDA_TOOLKIT_ROOT_DIR)
  set(CUDA_TOOLKIT_ROOT_DIR /usr/local/cuda)
endif()
set(CUDA_PROPAGATE_HOST_FLAGS OFF)
