'use strict';
// One reply (to the topic of category REPLY_BOARD whose last post is the oldest: the last row of
// the category's last page, so the reply moves it to the top of page 1) and one new topic in
// category NEW_BOARD, both by USER and dated now, through NodeBB's own topics.reply / topics.post
// (what its socket.io "posts.reply" / "topics.post" call: they update the category's counters,
// its recent posts and the topic's order), as the lab's seed.js posts. Run with the server up:
// the writes go to its Redis, and NodeBB 1.4 reads categories and topic lists from Redis on each
// request.
//   usage (from the NodeBB app dir):  node change_nodebb.js APP_DIR REPLY_BOARD NEW_BOARD TAG [USER=bob]
//   or, to add topics first (so that REPLY_BOARD has a second page):  node change_nodebb.js APP_DIR --fill BOARD N
// REPLY_BOARD / NEW_BOARD: a substring of the category's name. Prints one JSON line.
var path = require('path');
var APP = path.resolve(process.argv[2]);
var req = function (m) { return require(path.join(APP, m)); };
var async = req('node_modules/async');
var nconf = req('node_modules/nconf');
var winston = req('node_modules/winston');
winston.remove(winston.transports.Console);
winston.add(winston.transports.Console, { level: 'warn' });
nconf.file({ file: path.join(APP, 'config.json') });
nconf.defaults({ base_dir: APP, themes_path: path.join(APP, 'node_modules'), upload_path: 'public/uploads',
	views_dir: path.join(APP, 'public/templates'), relative_path: '' });
nconf.set('isPrimary', 'false');
nconf.set('isCluster', 'false');
var db = req('src/database');
var fill = process.argv[3] === '--fill';
var replyBoard = process.argv[3], newBoard = process.argv[4], tag = process.argv[5], username = process.argv[6] || 'bob';
var out = {};

function done(err) {
	if (err) { process.stderr.write('[change_nodebb] ' + (err.stack || err) + '\n'); }
	else { process.stdout.write(JSON.stringify(out) + '\n'); }
	setTimeout(function () { db.close(); setTimeout(function () { process.exit(err ? 1 : 0); }, 300); }, 1500);
}

db.init(function (err) {
	if (err) { return done(err); }
	var meta = req('src/meta');
	meta.configs.init(function (err) {
		if (err) { return done(err); }
		var user = req('src/user');
		var categories = req('src/categories');
		var topics = req('src/topics');
		var cidOf = function (name, cb) {
			db.getSortedSetRange('categories:cid', 0, -1, function (err, cids) {
				if (err) { return cb(err); }
				categories.getCategoriesFields(cids, ['cid', 'name'], function (err, cats) {
					if (err) { return cb(err); }
					var c = cats.filter(function (c) { return c.name.indexOf(name) !== -1; })[0];
					cb(c ? null : new Error('no category ' + name), c);
				});
			});
		};
		var now = new Date().toISOString().replace('T', ' ').slice(0, 19);
		user.getUidByUsername(username, function (err, uid) {
			if (err) { return done(err); }
			if (fill) {
				var n = parseInt(process.argv[5], 10);
				return cidOf(process.argv[4], function (err, c) {
					if (err) { return done(err); }
					out.filled = [];
					async.timesSeries(n, function (i, next) {
						topics.post({ uid: uid, cid: c.cid, title: 'Incremental lab filler topic ' + (i + 1) + ' 填充主题',
							content: 'A filler topic so that the category has a second page, ' + now + ' UTC.' },
						function (err, res) { if (!err) { out.filled.push(res.topicData.tid); } next(err); });
					}, done);
				});
			}
			var perPage = parseInt(meta.config.topicsPerPage, 10);
			cidOf(replyBoard, function (err, rc) {
				if (err) { return done(err); }
				// the category's order: pinned first, then by last post, newest first
				db.getSortedSetRevRange('cid:' + rc.cid + ':tids', 0, -1, function (err, tids) {
					if (err) { return done(err); }
					var target = tids[tids.length - 1];
					topics.getTopicFields(target, ['title'], function (err, t) {
						if (err) { return done(err); }
						topics.reply({ uid: uid, tid: target, content: 'Incremental lab reply ' + tag + ', posted ' + now
							+ ' UTC. 增量抓取测试回复。' }, function (err, post) {
							if (err) { return done(err); }
							out.reply = { thread_id: String(target), title: t.title, board: rc.name, board_id: String(rc.cid),
								row_before: tids.length, threads_in_board: tids.length,
								board_page_before: Math.floor((tids.length - 1) / perPage) + 1, post_id: String(post.pid) };
							cidOf(newBoard, function (err, nc) {
								if (err) { return done(err); }
								topics.post({ uid: uid, cid: nc.cid, title: 'Incremental lab thread ' + tag + ' 增量测试',
									content: 'A new thread for the incremental lab ' + tag + ', posted ' + now + ' UTC.' },
								function (err, res) {
									if (err) { return done(err); }
									out.new_thread = { thread_id: String(res.topicData.tid), board: nc.name, board_id: String(nc.cid),
										post_ids: [String(res.postData.pid)] };
									out.time = new Date().toISOString();
									out.user = username;
									done();
								});
							});
						});
					});
				});
			});
		});
	});
});
