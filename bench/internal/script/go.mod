module github.com/toolcall/toolcall/bench/internal/script

go 1.26
