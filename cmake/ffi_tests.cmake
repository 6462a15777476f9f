# FFI test handler libraries and the FFI call micro-benchmark.
# Include from the top-level CMakeLists.txt after the unit-test loop, so the
# test_ffi_plugin target exists when this file runs.
set(SHLOC_FFI_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
set(SHLOC_FFI_HANDLER_OUT ${CMAKE_BINARY_DIR}/ffi_handlers)

# Handler libraries are loaded with dlopen by the tests; they import
# XlaCustomCallStatusSetFailure / XLA_FFI_GetApi from the (-rdynamic) test
# executable, so they link against nothing.
set(SHLOC_FFI_TEST_HANDLERS basic plugin_entry plugin_static plugin_fail)
foreach(name ${SHLOC_FFI_TEST_HANDLERS})
  add_library(ffi_test_${name} MODULE ${SHLOC_FFI_ROOT}/tests/unit/ffi_handlers/${name}.c)
  target_include_directories(ffi_test_${name} PRIVATE ${SHLOC_FFI_ROOT}/include)
  set_target_properties(ffi_test_${name} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${SHLOC_FFI_HANDLER_OUT})
  if(TARGET test_ffi_plugin)
    add_dependencies(test_ffi_plugin ffi_test_${name})
  endif()
endforeach()
if(TARGET test_ffi_plugin)
  target_compile_definitions(test_ffi_plugin PRIVATE SHLOC_FFI_HANDLER_DIR="${SHLOC_FFI_HANDLER_OUT}")
endif()

# Not a test: times ffi_site_call (run it by hand or from bench/run).
add_executable(bench_ffi_call ${SHLOC_FFI_ROOT}/bench/ffi_call.c)
target_include_directories(bench_ffi_call PRIVATE ${SHLOC_FFI_ROOT}/src)
target_link_libraries(bench_ffi_call PRIVATE shloc)
target_link_options(bench_ffi_call PRIVATE -rdynamic)
