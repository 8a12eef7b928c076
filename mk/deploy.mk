# Updating the board over USB (issue 5, docs/UPDATING.md).
#   make deploy [PORT=/dev/ttyACM0] [SRC=firmware] [PROFILE=pico_hall] [DEPLOY_ARGS=--py]
#               (PROFILE= writes /data/board.txt first: bring-up, hardware/bringup.md)
#   make pull-games [PORT=...] [GAMES=games]
#   make analyse REC=games/g00001.txt [NODES=100000] [HTML=report.html] [PNG=graph.png]
#   make flash-pico UF2=RPI_PICO-....uf2 [DRIVE=/media/me/RPI-RP2] [FORCE=1]
#   make flash-esp32 BIN=ESP32_GENERIC-....bin PORT=/dev/ttyUSB0 [CHIP=esp32] [FORCE=1]
#               (FORCE=1: a MicroPython version outside the supported ones)
#   make deploy-emulated      deploy to an emulated board (build/emulated-board)
#   make deploy-measure       full and one-file update times on an emulated board
#   make emulated-board       run an emulated board on a pty (prints its port)
SRC   ?= firmware
GAMES ?= games
CHIP  ?= esp32

.PHONY: deploy pull-games analyse flash-pico flash-esp32 deploy-emulated deploy-measure update-measure emulated-board test-deploy

deploy: setup
	MANCALA_PORT_SPELLING=make $(PY) -m host_tools.link.deploy --src $(SRC) $(if $(PORT),--port $(PORT)) $(if $(PROFILE),--profile $(PROFILE)) $(DEPLOY_ARGS)

pull-games: setup
	MANCALA_PORT_SPELLING=make $(PY) -m host_tools.link.board_games pull --dest $(GAMES) $(if $(PORT),--port $(PORT))

analyse: setup
	@test -n "$(REC)" || { echo "error: give the record: make analyse REC=games/g00001.txt"; exit 2; }
	$(PY) -m host_tools.command.game_analysis $(REC) $(if $(NODES),--nodes $(NODES)) $(if $(HTML),--html $(HTML)) $(if $(PNG),--png $(PNG))

flash-pico: setup
	@test -n "$(UF2)" || { echo "error: give the UF2 file: make flash-pico UF2=RPI_PICO-20251209-v1.27.0.uf2"; exit 2; }
	MANCALA_PORT_SPELLING=make $(PY) -m host_tools.link.flash_micropython pico --uf2 $(UF2) $(if $(DRIVE),--drive $(DRIVE)) $(if $(FORCE),--force)

flash-esp32: setup
	@test -n "$(BIN)" || { echo "error: give the firmware: make flash-esp32 BIN=ESP32_GENERIC-20251209-v1.27.0.bin PORT=/dev/ttyUSB0"; exit 2; }
	MANCALA_PORT_SPELLING=make $(PY) -m host_tools.link.flash_micropython esp32 --bin $(BIN) --chip $(CHIP) $(if $(PORT),--port $(PORT)) $(if $(FORCE),--force)

deploy-emulated: setup
	$(PY) -m host_tools.link.deploy_emulated --src $(SRC)

# How long a recovery from a hung update takes on the emulated board, and what
# `make deploy` prints for each kind of broken update (docs/UPDATING.md).
update-measure: setup
	$(PY) -m host_tools.link.deploy_emulated --recovery

deploy-measure: setup
	$(PY) -m host_tools.link.deploy_emulated --measure --src $(SRC)

emulated-board: setup
	$(PY) -m host_tools.link.bridge --board build/emulated-board

test-deploy: setup
	$(VENV)/bin/pytest -q -n $(JOBS) tests/test_deploy.py tests/test_deploy_tools.py tests/test_bridge.py tests/test_update_*.py tests/test_boot_*.py

# One UF2 for a new Pico: MicroPython and the board's filesystem (docs/UPDATING.md,
# "A first install in one file").  make image MICROPYTHON=RPI_PICO-v1.27.0.uf2 [PROFILE=...] [OUT=...]
.PHONY: image
image: setup-play
	@test -n "$(MICROPYTHON)" || { echo "error: give MicroPython's UF2: make image MICROPYTHON=RPI_PICO-20251209-v1.27.0.uf2"; exit 2; }
	$(PY) -m host_tools.link.flash_image --micropython $(MICROPYTHON) $(if $(PROFILE),--profile $(PROFILE)) $(if $(OUT),--out $(OUT))
