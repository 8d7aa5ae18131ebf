from benchop_hook.cli import main

raise SystemExit(main())
