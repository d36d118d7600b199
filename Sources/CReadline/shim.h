// GNU readline (Debian: libreadline-dev). stdio.h first: readline.h uses FILE.
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
