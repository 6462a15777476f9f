# Custom calls end to end: the rms_norm example handler library, the test
# that loads it by "LIB:SYMBOL", and the custom-call loop micro-benchmark.
# Include from the top-level CMakeLists.txt after the unit-test loop.
set(SHLOC_CC_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
set(SHLOC_RMS_NORM_DIR ${CMAKE_BINARY_DIR}/examples/rms_norm)

# The example handler, as users build it (examples/rms_norm/Makefile does the
# same): it includes only shloc/xla_ffi.h and links against nothing but libm.
add_library(rms_norm MODULE ${SHLOC_CC_ROOT}/examples/rms_norm/rms_norm.c)
target_include_directories(rms_norm PRIVATE ${SHLOC_CC_ROOT}/include)
target_link_libraries(rms_norm PRIVATE m)
set_target_properties(rms_norm PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${SHLOC_RMS_NORM_DIR})

if(TARGET test_custom_call_dlopen)
  add_dependencies(test_custom_call_dlopen rms_norm)
  target_compile_definitions(test_custom_call_dlopen PRIVATE
    SHLOC_RMS_NORM_LIB="$<TARGET_FILE:rms_norm>"
    SHLOC_RMS_NORM_MLIR="${SHLOC_CC_ROOT}/examples/rms_norm/rms_norm.mlir")
endif()

if(TARGET test_exec_concurrent)
  add_dependencies(test_exec_concurrent rms_norm)
  target_compile_definitions(test_exec_concurrent PRIVATE
    SHLOC_RMS_NORM_LIB="$<TARGET_FILE:rms_norm>"
    SHLOC_RMS_NORM_MLIR="${SHLOC_CC_ROOT}/examples/rms_norm/rms_norm.mlir")
endif()

# Not a test: time per custom call inside a while loop (bench/run or by hand).
add_executable(bench_custom_call_loop ${SHLOC_CC_ROOT}/bench/custom_call_loop.c)
target_link_libraries(bench_custom_call_loop PRIVATE shloc)
