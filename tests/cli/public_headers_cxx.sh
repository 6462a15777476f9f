#!/bin/sh
# The public headers compiled alone as C++ (see public_headers.sh).
exec "$(dirname "$0")/public_headers.sh" "$1" c++
