<?php
// Makes one SMF 2.1 board members-only as Admin > Boards > Modify board does when the
// "Guests" box is unticked: modifyBoard() with access_groups without -1 (it rebuilds
// board_permissions_view), loaded via SSI.php as the lab's seed.php does.
// usage: runuser -u www-data -- php smf_members_only.php SMF_ROOT BOARD_ID
$root = rtrim($argv[1], '/');
$bid = (int)$argv[2];
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REQUEST_URI'] = '/SSI.php';
$ssi_guest_access = true;
require $root . '/SSI.php';
require_once $sourcedir . '/Subs-Boards.php';
$user_info = array_merge($user_info, ['id' => 1, 'is_admin' => true, 'is_guest' => false,
                                      'groups' => [1, 0], 'query_see_board' => '1=1',
                                      'query_wanna_see_board' => '1=1']);
$options = ['access_groups' => [0, 2], 'deny_groups' => [], 'old_id_cat' => 1];  // the lab's category
modifyBoard($bid, $options);
fwrite(STDERR, "[smf] board $bid: members and moderators only\n");
