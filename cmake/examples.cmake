# The bundled examples, built as users build them and run as tests.
# Include after cmake/custom_call_tests.cmake (which defines the rms_norm
# handler library they call).

# examples/builder: builds f(x) = rms_norm(x) * 2 with the builder API, prints
# it and runs it through the rms_norm handler; exits 1 on a wrong result.
add_executable(example_builder ${CMAKE_CURRENT_LIST_DIR}/../examples/builder/rms_norm_builder.c)
target_link_libraries(example_builder PRIVATE shloc)
# The handler library resolves XLA_FFI_* and XlaCustomCallStatus* in the program.
target_link_options(example_builder PRIVATE -rdynamic)
add_dependencies(example_builder rms_norm)
add_test(NAME example_builder COMMAND example_builder $<TARGET_FILE:rms_norm>)
