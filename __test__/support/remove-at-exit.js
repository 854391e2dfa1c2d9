'use strict'
// Removes a test's directory as the process exits.

const fs = require('node:fs')

/** Removes `dir` and all in it when this process exits. */
function removeAtExit(dir) {
  process.on('exit', () => {
    try {
      fs.rmSync(dir, { recursive: true, force: true })
    } catch (error) {
      // Windows removes no file while a view of it is mapped, and this process's state files
      // stay mapped until it is gone: the directory is left in the temporary directory there.
      if (process.platform !== 'win32' || error.code !== 'EPERM') throw error
    }
  })
}

module.exports = { removeAtExit }
