# Fingerprinting throughput (Google Benchmark) and the sample corpus evaluation (spec/FINGERPRINT.md,
# data/corpus). Included by bench/CMakeLists.txt.
add_library(simdex_bench_corpus STATIC ${CMAKE_CURRENT_LIST_DIR}/corpus.cpp)
target_include_directories(simdex_bench_corpus PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_definitions(simdex_bench_corpus PRIVATE SIMDEX_DEFAULT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(simdex_bench_corpus PUBLIC simdex_documents simdex_io)

add_executable(fingerprint_bench ${CMAKE_CURRENT_LIST_DIR}/fingerprint_bench.cpp)
target_link_libraries(fingerprint_bench PRIVATE simdex_bench_corpus simdex_fingerprint benchmark::benchmark)

add_executable(eval_corpus ${CMAKE_CURRENT_LIST_DIR}/eval_corpus.cpp)
target_link_libraries(eval_corpus PRIVATE simdex_bench_corpus simdex_fingerprint)
