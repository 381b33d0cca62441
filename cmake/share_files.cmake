# Writes the manual page and the shell completion scripts by running the engine just built: they are made from its
# own commands and flags, so they can never list one it does not have.
#   cmake -DENGINE=path/to/engine -DOUT=folder -P cmake/share_files.cmake
function(engine_output file)
  get_filename_component(dir "${OUT}/${file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${ENGINE}" ${ARGN} OUTPUT_FILE "${OUT}/${file}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "engine ${ARGN} failed (${rc})")
  endif()
endfunction()

engine_output(man/man1/engine.1 man)
engine_output(bash-completion/completions/engine completion bash)
engine_output(zsh/site-functions/_engine completion zsh)
engine_output(fish/vendor_completions.d/engine.fish completion fish)
