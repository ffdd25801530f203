import os
import sys

from action.main import main

sys.exit(main(sys.argv[1:], os.environ))
