#include "parsers/dumpsys_package.h"
