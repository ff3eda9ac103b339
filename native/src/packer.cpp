#include "packer.hpp"
