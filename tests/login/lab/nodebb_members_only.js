'use strict';
// Makes one NodeBB 1.4 category members-only as ACP > Categories > Privileges does when the
// guests' boxes are unticked: privileges.categories.rescind() of find, read and
// topics:read for the "guests" group (groups membership in the forum's Redis).
// usage: node nodebb_members_only.js APP_DIR CID     (the lab's seed.js bootstraps the same way)
var path = require('path');
var APP = path.resolve(process.argv[2]);
var cid = parseInt(process.argv[3], 10);
var req = function (m) { return require(path.join(APP, m)); };
var nconf = req('node_modules/nconf');
var winston = req('node_modules/winston');
winston.remove(winston.transports.Console);
winston.add(winston.transports.Console, { level: 'warn' });
nconf.file({ file: path.join(APP, 'config.json') });
nconf.defaults({ base_dir: APP, themes_path: path.join(APP, 'node_modules'),
	upload_path: 'public/uploads', views_dir: path.join(APP, 'public/templates'), relative_path: '' });
nconf.set('isPrimary', 'true');
nconf.set('isCluster', 'false');
var db = req('src/database');
db.init(function (err) {
	if (err) { throw err; }
	var privileges = req('src/privileges');
	privileges.categories.rescind(['find', 'read', 'topics:read'], cid, 'guests', function (err) {
		if (err) { throw err; }
		process.stderr.write('[nodebb] category ' + cid + ': no find/read for guests\n');
		db.close();
		setTimeout(function () { process.exit(0); }, 300);
	});
});
